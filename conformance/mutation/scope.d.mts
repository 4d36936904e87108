/** Types of scope.mjs (plain JavaScript: Stryker loads its configuration without tsx). */
export type Killer = 'suite' | 'own-tests';
export interface Area { area: string; killer: Killer; files: string[]; note?: string }
export interface Outside { files: string; reason: string }
export const AREAS: Area[];
export const OUTSIDE: Outside[];
export const ROOTS: string[];
export function region(file: string, after: string, last: string): string;
export function mutateFor(killer: Killer, area?: string): string[];
export function placeOf(file: string, line?: number): { area: Area } | { outside: Outside } | undefined;
export function matches(pattern: string, file: string): boolean;
