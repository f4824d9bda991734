// What the Schemas screen needs from the app; `ui/src/backend/schemaSource.ts`
// implements it over ui/src/ipc.ts. A schema travels as the text the editor
// shows.
import type { SchemaProblem, SchemaSummary } from "../ipc";

export interface StoredSchema {
  name: string;
  version: number;
  /** The schema as pretty JSON, as the editor shows it. */
  text: string;
}

export interface SavedVersion {
  version: number;
  /** False when the schema equalled the latest version. */
  newVersion: boolean;
}

export interface SchemaSource {
  listSchemas(): Promise<SchemaSummary[]>;
  getSchema(name: string, version: number | null): Promise<StoredSchema>;
  saveSchema(name: string, text: string): Promise<SavedVersion>;
  /** The engine's answer-schema rules: empty when the schema passes. */
  checkSchema(text: string): Promise<SchemaProblem[]>;
  /** The open dialog for a `.json` schema; null when cancelled. */
  pickSchemaFile(): Promise<string | null>;
  importSchema(path: string): Promise<StoredSchema>;
  /** The save dialog for a `.json` file; null when cancelled. */
  pickSaveFile(defaultName: string): Promise<string | null>;
  exportSchema(name: string, version: number | null, path: string): Promise<void>;
}
