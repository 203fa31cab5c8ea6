import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-events.js';

registerSuite(suite);
