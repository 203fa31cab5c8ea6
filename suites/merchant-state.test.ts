import { registerSuite } from '../harness/vitest/register.js';
import suite from './merchant-state.js';

registerSuite(suite);
