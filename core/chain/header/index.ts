/** Block headers: the type, the per-chain codec seam, Ethereum's codec, hashing and fixture JSON. */
export { EMPTY_BLOOM, EMPTY_CODE_HASH, EMPTY_OMMERS_HASH, EMPTY_TRIE_ROOT, type Header } from './types.ts';
export { type HeaderCodec } from './codec.ts';
export { decodeEthereumHeaderFields, ethereumHeaderCodec, ethereumHeaderFields } from './ethereumCodec.ts';
export { HeaderError, type HeaderErrorCode } from './errors.ts';
export { headerHash } from './hash.ts';
export { headerDifficulty } from './difficultyField.ts';
export { headerFromTestJson, TestHeaderJsonError } from './testJson.ts';
