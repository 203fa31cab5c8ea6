import { registerSuite } from '../harness/vitest/register.js';
import suite from './naming.js';

registerSuite(suite);
