import { parseDocument, LineCounter, isMap, isSeq, isScalar, isAlias, type Node, type Document } from 'yaml';

/** A problem tied to a place in a file: the file, 1-based line and column, the key path and the rule broken. */
export interface PositionedIssue {
  file: string;
  line: number;
  column: number;
  key: string;
  rule: string;
}

export function formatIssue(i: PositionedIssue): string {
  const where = i.line > 0 ? `${i.file}:${i.line}:${i.column}` : i.file;
  return `${where}: ${i.key ? `${i.key}: ` : ''}${i.rule}`;
}

export function formatIssues(issues: PositionedIssue[]): string {
  return issues.map(formatIssue).join('\n');
}

export interface ParsedYaml {
  value: any;
  issues: PositionedIssue[];
  /** The parsed document, for callers that walk nodes themselves (the pipeline schema). */
  document: Document;
  /** 1-based line and column of a character offset in the text. */
  position(offset: number): { line: number; column: number };
  /** Position of the node at exactly this key path (the key for map entries), or undefined when it is absent. */
  find(keyPath: readonly (string | number)[]): { line: number; column: number } | undefined;
  /** Position of the node at a key path, or of its nearest existing ancestor. */
  locate(keyPath: readonly (string | number | symbol)[]): { line: number; column: number };
  locateZodIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): PositionedIssue[];
}

/** Parses YAML keeping positions, so that schema errors can point at file:line:column. */
export function parseYamlDocument(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const pos = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const issues: PositionedIssue[] = doc.errors.map((e) => ({
    file,
    ...pos(e.pos[0]),
    key: '',
    rule: `YAML syntax: ${e.message.split('\n')[0]}`,
  }));

  const locate = (keyPath: readonly (string | number | symbol)[]) => {
    let node: Node | null | undefined = doc.contents as Node | null;
    let best = node?.range ? node.range[0] : 0;
    for (const k of keyPath) {
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(k));
        if (!pair) break;
        const keyNode = pair.key as Node | null;
        if (keyNode?.range) best = keyNode.range[0];
        node = pair.value as Node | null;
        if (node?.range && typeof k !== 'symbol') {
          // Point at the value for leaves and at the key for containers; both are on the user's line.
          if (!isMap(node) && !isSeq(node)) best = node.range[0];
        }
      } else if (isSeq(node) && typeof k === 'number') {
        const item = node.items[k] as Node | undefined;
        if (!item) break;
        node = item;
        if (item.range) best = item.range[0];
      } else break;
    }
    return pos(best);
  };

  const find = (keyPath: readonly (string | number)[]) => {
    let node: Node | null | undefined = doc.contents as Node | null;
    let at: number | undefined = node?.range?.[0];
    for (const k of keyPath) {
      if (isAlias(node)) node = node.resolve(doc) as Node | undefined;
      if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(k));
        if (!pair) return undefined;
        at = (pair.key as Node | null)?.range?.[0] ?? at;
        node = pair.value as Node | null;
      } else if (isSeq(node) && typeof k === 'number') {
        const item = node.items[k] as Node | undefined;
        if (!item) return undefined;
        at = item.range?.[0] ?? at;
        node = item;
      } else return undefined;
    }
    return at === undefined ? undefined : pos(at);
  };

  return {
    value: issues.length ? undefined : doc.toJS({ maxAliasCount: 100 }),
    issues,
    document: doc,
    position: pos,
    find,
    locate,
    locateZodIssues: (zi) =>
      zi.map((i) => {
        const unknownKeys = (i as any).code === 'unrecognized_keys' ? ((i as any).keys as string[]) : undefined;
        const keyPath = unknownKeys ? [...i.path, unknownKeys[0]] : [...i.path];
        const key = keyPath.map(String).join('.');
        return { file, ...locate(keyPath), key, rule: unknownKeys ? `unknown key (${unknownKeys.join(', ')})` : i.message };
      }),
  };
}
