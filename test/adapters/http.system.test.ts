/** @module The HTTP interface's suite on the adapters that listen on a socket. */
import { overSockets } from './eachAdapter.js';
import { describeHttpInterface } from './httpSuite.js';

describeHttpInterface(overSockets);
