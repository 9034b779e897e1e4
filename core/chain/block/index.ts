/** Blocks: types, strict RLP codec for blocks and bodies, header commitments to the body. */
export { type Block, type BlockBody } from './types.ts';
export { BlockError, type BlockErrorCode } from './errors.ts';
export { decodeBlock, decodeBlockBody, encodeBlock, encodeBlockBody, encodeTransactionItem } from './codec.ts';
export { ommersHash, transactionsRoot, verifyBodyRoots } from './roots.ts';
export { EMPTY_REQUESTS_HASH, requestsHash, type BlockRequests } from './requests.ts';
