import { registerSuite } from '../harness/vitest/register.js';
import suite from './checkout.js';

registerSuite(suite);
