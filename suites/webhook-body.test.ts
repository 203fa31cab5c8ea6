import { registerSuite } from '../harness/vitest/register.js';
import suite from './webhook-body.js';

registerSuite(suite);
