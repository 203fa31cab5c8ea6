import { registerSuite } from '../harness/vitest/register.js';
import suite from './signing.js';

registerSuite(suite);
