import { registerSuite } from '../harness/vitest/register.js';
import suite from './environment-keys.js';

registerSuite(suite);
