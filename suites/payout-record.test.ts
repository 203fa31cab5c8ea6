import { registerSuite } from '../harness/vitest/register.js';
import suite from './payout-record.js';

registerSuite(suite);
