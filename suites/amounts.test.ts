import { registerSuite } from '../harness/vitest/register.js';
import suite from './amounts.js';

registerSuite(suite);
