import { registerSuite } from '../harness/vitest/register.js';
import suite from './envelope.js';

registerSuite(suite);
