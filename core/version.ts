/** Client identity, as reported by web3_clientVersion and `xone --version`. */
export const CLIENT_NAME = 'xOne TS';
export const CLIENT_VERSION = '0.1.0';
/** geth-style identity string: name/version/platform/runtime. */
export const CLIENT_IDENTITY = `xone-ts/v${CLIENT_VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`;
