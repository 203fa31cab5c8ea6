import { registerSuite } from '../harness/vitest/register.js';
import suite from './payouts.js';

registerSuite(suite);
