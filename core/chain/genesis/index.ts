/** Genesis: geth genesis.json and ethereum/tests fixtures → chain config, genesis header, alloc. */
export { GenesisError, type GenesisErrorCode } from './errors.ts';
export { parseGenesis, DEFAULT_GENESIS_DIFFICULTY, DEFAULT_GENESIS_GAS_LIMIT, INITIAL_BASE_FEE, type Genesis } from './parseGenesis.ts';
export { parseChainConfig } from './chainConfig.ts';
export { parseAlloc, type GenesisAccount, type GenesisAlloc } from './alloc.ts';
export { allocStateRoot, encodeGenesisAccount, storageRootOf } from './stateRoot.ts';
export { genesisFromBlockchainTest, type BlockchainTestGenesis } from './fromBlockchainTest.ts';
