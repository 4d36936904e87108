/** Types of ignorer.mjs (plain JavaScript: Stryker loads it without tsx). */
import type { Ignorer } from '@stryker-mutator/api/ignore';
import type { PluginKind } from '@stryker-mutator/api/plugin';

export function switchKind(node: unknown): 'fault' | 'reading' | undefined;
export function onlyWhenTruthy(node: unknown): 'fault' | 'reading' | undefined;
export function onlyWhenFalsy(node: unknown): 'fault' | 'reading' | undefined;
export function isMessageText(path: unknown): boolean;
export function whyIgnored(path: unknown): string | undefined;
export const strykerPlugins: { kind: PluginKind.Ignore; name: string; value: Ignorer }[];
