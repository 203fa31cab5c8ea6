import { registerSuite } from '../harness/vitest/register.js';
import suite from './price-points.js';

registerSuite(suite);
