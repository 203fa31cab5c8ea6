import { registerSuite } from '../harness/vitest/register.js';
import suite from './response-signing.js';

registerSuite(suite);
