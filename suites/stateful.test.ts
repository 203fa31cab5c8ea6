import { registerSuite } from '../harness/vitest/register.js';
import suite from './stateful.js';

registerSuite(suite);
