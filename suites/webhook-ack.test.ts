import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-ack.js';

registerSuite(suite);
