import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-delivery.js';

registerSuite(suite);
