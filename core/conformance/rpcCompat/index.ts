/** `xone rpc-compat`: execution-apis `.io` conformance runs compared the way hive's rpc-compat compares. */
export { compareResponse, diffJson, diffShape, formatDifferences, redactErrorMessages, type Difference } from './compare.ts';
export { FixtureChainError, startFixtureNode, type FixtureNode, type FixtureNodeOptions } from './fixtureNode.ts';
export { IoFileError, listIoFiles, parseIoFile, readIoFile, type IoMessage, type IoTest } from './ioFile.ts';
export { runIoTest, runIoTests, runRpcCompat, type RunSummary, type TestResult } from './runner.ts';
