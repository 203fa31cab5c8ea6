import { registerSuite } from '../harness/vitest/register.js';
import suite from './payment-methods.js';

registerSuite(suite);
