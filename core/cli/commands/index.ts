import type { Command } from 'commander';
import { registerAccount } from './account.ts';
import { registerDb } from './db.ts';
import { registerRun } from './run.ts';
import { registerExport, registerInit } from './initExport.ts';
import { registerStatetest } from './statetest.ts';
import { registerBlocktest } from './blocktest.ts';
import { registerImport } from './import.ts';
import { registerRpcCompat } from './rpcCompat.ts';

/** A subcommand adds itself to the program. */
export type RegisterCommand = (program: Command) => void;

/** Every `xone` subcommand, in the order `--help` lists them. Add new commands here. */
export const commands: RegisterCommand[] = [
  registerRun,
  registerInit,
  registerExport,
  registerDb,
  registerAccount,
  registerStatetest,
  registerBlocktest,
  registerImport,
  registerRpcCompat,
];
