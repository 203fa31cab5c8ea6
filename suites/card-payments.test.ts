import { registerSuite } from '../harness/vitest/register.js';
import suite from './card-payments.js';

registerSuite(suite);
