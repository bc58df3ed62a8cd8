/** @module The HTTP interface's suite on the adapters that answer in process. */
import { inProcess } from './eachAdapter.js';
import { describeHttpInterface } from './httpSuite.js';

describeHttpInterface(inProcess);
