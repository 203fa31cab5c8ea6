import { registerSuite } from '../harness/vitest/register.js';
import suite from './refunds.js';

registerSuite(suite);
