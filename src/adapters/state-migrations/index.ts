import type { Migration } from "../sqlite-migrate.ts";
import { migration001 } from "./001-transactions.ts";
import { migration002 } from "./002-transaction-host.ts";
import { migration003 } from "./003-approval-facts.ts";
import { migration004 } from "./004-preview-salt.ts";
import { migration005 } from "./005-plans.ts";
import { migration006 } from "./006-passkeys.ts";
import { migration007 } from "./007-confirm-window.ts";

/** The state database's migrations, oldest first (one file each; add the next as 008-….ts and list it here). */
export const STATE_MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007];
