import { registerSuite } from '../harness/vitest/register.js';
import suite from './auth-headers.js';

registerSuite(suite);
