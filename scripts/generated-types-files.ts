import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import ts from 'typescript';
import { astToString, COMMENT_HEADER } from 'openapi-typescript';

/**
 * openapi-typescript writes one file, thousands of lines long. These are the same types split by what
 * they are about: the paths of one resource (`/orders`, `/orders/{id}`, … in `paths-orders…`), the
 * schemas of one family (`Order`, `OrderLine`, … in `schemas-order…`), each file under the project's
 * 400 lines; the index file keeps the names openapi-fetch reads (`paths`, `components`), built from
 * the parts. A resource or family too big for one file continues in the next, named by its first
 * member.
 */

/** Lines a part may take (the file-size test allows 400 with the header and the import). */
const PART_LINES = 380;

/** The index file's text, and each part's file name (in the folder named after the index) and text. */
export interface TypesFiles {
  index: string;
  parts: Map<string, string>;
}

interface Member {
  group: string;
  /** Names the part the member opens. */
  slug: string;
  node: ts.TypeElement;
  lines: number;
}

const pascal = (slug: string) => slug.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, letter: string) => letter.toUpperCase());
const lineCount = (node: ts.TypeElement) => print(node).split('\n').length;
const print = (member: ts.TypeElement) => astToString([interfaceOf('Part', [member])]);

function interfaceOf(name: string, members: readonly ts.TypeElement[], heritage?: string[]): ts.InterfaceDeclaration {
  const clauses = heritage?.length
    ? [
        ts.factory.createHeritageClause(
          ts.SyntaxKind.ExtendsKeyword,
          heritage.map((parent) => ts.factory.createExpressionWithTypeArguments(ts.factory.createIdentifier(parent), undefined)),
        ),
      ]
    : undefined;
  return ts.factory.createInterfaceDeclaration([ts.factory.createModifier(ts.SyntaxKind.ExportKeyword)], name, undefined, clauses, members);
}

function nameOf(member: ts.TypeElement): string {
  const name = member.name;
  if (name && (ts.isStringLiteral(name) || ts.isIdentifier(name))) return name.text;
  throw new Error('a generated member without a plain name');
}

/** Consecutive members of one group, packed into parts of at most PART_LINES lines. */
function pack(members: readonly Member[]): Member[][] {
  const parts: Member[][] = [];
  let lines = 0;
  for (const member of members) {
    const last = parts.at(-1);
    if (last && last[0]!.group === member.group && lines + member.lines <= PART_LINES) {
      last.push(member);
      lines += member.lines;
    } else {
      parts.push([member]);
      lines = member.lines;
    }
  }
  return parts;
}

/** `/orders/{id}/notes` (after `prefix`) → group `orders`, slug `orders-id-notes`. */
function pathMember(node: ts.TypeElement, prefix: string): Member {
  const path = nameOf(node).slice(prefix.length);
  const slug = path.replace(/[{}]/g, '').split('/').filter(Boolean).join('-');
  return { group: path.split('/')[1] ?? '', slug, node, lines: lineCount(node) };
}

/** `OrderLineInput` → group `order`, slug `order-line-input`. */
function schemaMember(node: ts.TypeElement): Member {
  const name = nameOf(node);
  const slug = name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return { group: slug.split('-')[0]!, slug, node, lines: lineCount(node) };
}

/** The openapi-typescript AST as an index file and its parts. `pathPrefix` is left out of the paths' file names. */
export function splitTypes(nodes: readonly ts.Node[], indexName: string, pathPrefix = ''): TypesFiles {
  const parts = new Map<string, string>();
  const imports: string[] = [];
  const partHeader = `${COMMENT_HEADER}import type { components } from '../${indexName}.js';\n\n`;
  /** Writes the parts of `members`, imported by the index; their interface names. */
  const split = (kind: 'paths' | 'schemas', members: Member[]): string[] =>
    pack(members).map((part) => {
      const name = `${pascal(part[0]!.slug)}${pascal(kind)}`;
      const file = `${kind}-${part[0]!.slug}.generated`;
      parts.set(
        `${file}.ts`,
        partHeader +
          astToString([
            interfaceOf(
              name,
              part.map((member) => member.node),
            ),
          ]),
      );
      imports.push(`import type { ${name} } from './${indexName}/${file}.js';`);
      return name;
    });

  const index = nodes.map((node) => {
    if (!ts.isInterfaceDeclaration(node)) return node;
    if (node.name.text === 'paths')
      return interfaceOf(
        'paths',
        [],
        split(
          'paths',
          node.members.map((member) => pathMember(member, pathPrefix)),
        ),
      );
    if (node.name.text !== 'components') return node;
    const schemas = node.members.find((member) => nameOf(member) === 'schemas');
    if (!schemas || !ts.isPropertySignature(schemas) || !schemas.type || !ts.isTypeLiteralNode(schemas.type)) return node;
    const joined = ts.factory.createIntersectionTypeNode(
      split('schemas', schemas.type.members.map(schemaMember)).map((name) => ts.factory.createTypeReferenceNode(name)),
    );
    return interfaceOf(
      'components',
      node.members.map((member) =>
        member === schemas ? ts.factory.createPropertySignature(undefined, 'schemas', undefined, joined) : member,
      ),
    );
  });
  return { index: `${COMMENT_HEADER}${imports.join('\n')}\n\n${astToString(index as ts.Node[])}`, parts };
}

/** The folder of an index file's parts: beside it, named after it (`admin-api.generated.ts` → `admin-api.generated/`). */
const partsFolder = (indexFile: string) => join(dirname(indexFile), basename(indexFile, '.ts'));

/** Writes the index file and its parts, removing parts of an earlier split. */
export function writeTypesFiles(indexFile: string, files: TypesFiles): void {
  const folder = partsFolder(indexFile);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const [name, text] of files.parts) writeFileSync(join(folder, name), text);
  writeFileSync(indexFile, files.index);
}

/** The files as they are on disk, to compare with a fresh split (the stale-types tests). */
export function readTypesFiles(indexFile: string): TypesFiles {
  const folder = partsFolder(indexFile);
  const names = existsSync(folder) ? readdirSync(folder).sort() : [];
  return { index: readFileSync(indexFile, 'utf8'), parts: new Map(names.map((name) => [name, readFileSync(join(folder, name), 'utf8')])) };
}
