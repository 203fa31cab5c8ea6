import { registerSuite } from '../harness/vitest/register.js';
import suite from './language.js';

registerSuite(suite);
