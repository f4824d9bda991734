// The Schemas screen's source over the Tauri commands (ui/src/ipc.ts): a
// schema goes as JSON and comes back as the editor's text.
import * as ipc from "../ipc";
import type { SchemaSource, StoredSchema } from "../schemas/source";

const JSON_SCHEMA = { name: "JSON Schema", extensions: ["json"] };

/** A schema as the editor shows it: pretty JSON with a final newline. */
export function schemaText(schema: ipc.JsonValue): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

function stored(doc: ipc.SchemaDoc): StoredSchema {
  return { name: doc.name, version: doc.version, text: schemaText(doc.schema) };
}

const parseText = (text: string) => JSON.parse(text) as ipc.JsonValue;

export function tauriSchemaSource(): SchemaSource {
  return {
    listSchemas: () => ipc.listSchemas(),
    getSchema: async (name, version) => stored(await ipc.getSchema(name, version)),
    async saveSchema(name, text) {
      const saved = await ipc.saveSchema(name, parseText(text));
      return { version: saved.schema.version, newVersion: saved.newVersion };
    },
    checkSchema: async (text) => ipc.checkSchema(parseText(text)),
    async pickSchemaFile() {
      const [path] = await ipc.pickFiles({ title: "Import a JSON Schema", multiple: false, filters: [JSON_SCHEMA] });
      return path ?? null;
    },
    importSchema: async (path) => stored(await ipc.importSchema(path)),
    pickSaveFile: (defaultName) => ipc.pickSavePath({ defaultName, filters: [JSON_SCHEMA] }),
    exportSchema: (name, version, path) => ipc.exportSchema(name, version, path),
  };
}
