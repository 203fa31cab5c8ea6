import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-no-event.js';

registerSuite(suite);
