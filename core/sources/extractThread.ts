// Runs in a worker thread (core/sources/extract.ts extractOffThread): parsing a page of up to
// 5 MB holds a thread for a second or more, which must not be the event loop `npm start`
// shares with the API.
import { parentPort, workerData } from 'node:worker_threads';
import { extractArticle } from './extract.ts';

parentPort!.postMessage(extractArticle(workerData as string) ?? null);
