/** measure-node's own version, written into every report so a reader knows which rules produced it. */
export const MEASURE_NODE_VERSION = '1.0.0';
