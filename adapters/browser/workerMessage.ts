/** @module Talking to a service worker from a page: one message, one answer on its own port. */
import type { WorkerMessage } from './WorkerScope.js';

/** What a worker answers a message with. */
export type WorkerAnswer = { ok: true; value?: unknown } | { ok: false; message: string };

/**
 * Sends `message` to `worker` and resolves with its answer; rejects with the worker's
 * reason, or when no answer comes within `timeoutMilliseconds`.
 */
export const askWorker = (worker: ServiceWorker, message: WorkerMessage, timeoutMilliseconds = 10_000): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => {
      channel.port1.close();
      reject(new Error(`The service worker did not answer "${message.type}" within ${timeoutMilliseconds / 1000} s.`));
    }, timeoutMilliseconds);
    channel.port1.onmessage = ({ data }: MessageEvent<WorkerAnswer>) => {
      clearTimeout(timer);
      channel.port1.close();
      if (data.ok) resolve(data.value);
      else reject(new Error(data.message));
    };
    worker.postMessage(message, [channel.port2]);
  });

/** Answers a page's message on its port with what `work` resolves to, or its failure's message. */
export const answerMessage = async (port: MessagePort | undefined, work: () => unknown): Promise<void> => {
  let answer: WorkerAnswer;
  try {
    answer = { ok: true, value: await work() };
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port?.postMessage(answer);
};
