import { registerSuite } from '../harness/vitest/register.js';
import suite from './payout-errors.js';

registerSuite(suite);
