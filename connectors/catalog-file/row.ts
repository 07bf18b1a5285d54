export interface SourceRow { line: number; fields: Array<[name: string, value: string]> }
