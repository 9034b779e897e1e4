/**
 * The state layer's multi-row inserts (account rows, change sets, trie nodes) use the store's helper: one design, one
 * place (decision 0019).
 */
export { ChunkedInsert, type SqlValue } from '../../store/sqlite/chunkedInsert.ts';
