import { registerSuite } from '../harness/vitest/register.js';
import suite from './payment-query.js';

registerSuite(suite);
