/** Serves the in-memory test chain on 127.0.0.1 in its own process (for benchmarks); prints {"port":N} when up. */
import { buildChain } from '../support/harness.ts';
import { MemoryNode } from '../support/memoryNode.ts';
import { createRpcServer } from '../../../core/rpc/server.ts';

const node = new MemoryNode(await buildChain());
const server = createRpcServer({ port: 0 }, { chain: node, state: node, exec: node, txpool: node });
const { port } = await server.start();
console.log(JSON.stringify({ port }));
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
