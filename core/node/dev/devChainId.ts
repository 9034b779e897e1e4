/** The dev chain's id (as anvil's), in a module of its own: `xone run --dev` binds its RPC port before loading the rest. */
export const DEV_CHAIN_ID = 1337;
