export function referencedFields(): string[][] { return []; }
