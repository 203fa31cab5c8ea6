import { registerSuite } from '../harness/vitest/register.js';
import suite from './refund-errors.js';

registerSuite(suite);
