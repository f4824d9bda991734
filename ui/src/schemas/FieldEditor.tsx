import { useEffect, useState } from "react";
import type { SchemaProblem } from "../ipc";
import { addField, moveField, removeField, setItemType, updateField, type FieldProblem } from "../schema/edit";
import { FIELD_TYPES, ITEM_TYPES, enumText, parseEnumText, type Field, type FieldType, type ItemType, type SchemaModel } from "../schema/model";

interface Props {
  model: SchemaModel;
  problems: FieldProblem[];
  /** The engine's problems by the field path they are about. */
  engine: Map<string, SchemaProblem[]>;
  onChange: (model: SchemaModel) => void;
  /** The fields show the last valid text; edits are off until the text is fixed. */
  disabled: boolean;
}

/** The visual editor: one group per field, nested for objects and arrays of objects. */
export function FieldEditor({ model, problems, engine, onChange, disabled }: Props) {
  return (
    <div className="field-editor" data-testid="field-editor">
      <fieldset disabled={disabled} className="bare">
        <legend className="visually-hidden">Fields</legend>
        <FieldList fields={model.fields} prefix="" model={model} problems={problems} engine={engine} onChange={onChange} />
        <button type="button" onClick={() => onChange(addField(model, null).model)} data-testid="add-field">
          Add field
        </button>
      </fieldset>
    </div>
  );
}

interface ListProps {
  fields: Field[];
  prefix: string;
  model: SchemaModel;
  problems: FieldProblem[];
  engine: Map<string, SchemaProblem[]>;
  onChange: (model: SchemaModel) => void;
}

function FieldList({ fields, prefix, model, problems, engine, onChange }: ListProps) {
  return (
    <ol className="field-list">
      {fields.map((field, index) => (
        <li key={field.id}>
          <FieldRow field={field} path={prefix === "" ? field.name : `${prefix}.${field.name}`} first={index === 0} last={index === fields.length - 1} model={model} problems={problems} engine={engine} onChange={onChange} />
        </li>
      ))}
    </ol>
  );
}

interface RowProps {
  field: Field;
  path: string;
  first: boolean;
  last: boolean;
  model: SchemaModel;
  problems: FieldProblem[];
  engine: Map<string, SchemaProblem[]>;
  onChange: (model: SchemaModel) => void;
}

function FieldRow({ field, path, first, last, model, problems, engine, onChange }: RowProps) {
  const set = (patch: Partial<Field>) => onChange(updateField(model, field.id, patch));
  const mine = problems.filter((p) => p.fieldId === field.id);
  const container = field.type === "object" || (field.type === "array" && field.itemType === "object");
  const label = path.trim() === "" ? "unnamed field" : path;
  const scalar = field.type === "string" || field.type === "number" || field.type === "integer";

  return (
    <fieldset className="field-row" data-testid="field-row" data-path={path}>
      <legend className="visually-hidden">{label}</legend>
      <div className="field-main">
        <label className="stack">
          <span className="small muted">Name</span>
          <input value={field.name} onChange={(e) => set({ name: e.target.value })} spellCheck={false} aria-invalid={mine.length > 0} />
        </label>
        <label className="stack">
          <span className="small muted">Type</span>
          {field.type === "custom" ? (
            <input value="custom (edit as JSON)" readOnly />
          ) : (
            <select value={field.type} onChange={(e) => set({ type: e.target.value as FieldType })}>
              {FIELD_TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
            </select>
          )}
        </label>
        {field.type === "array" && (
          <label className="stack">
            <span className="small muted">Items</span>
            <select value={field.itemType} onChange={(e) => onChange(setItemType(model, field.id, e.target.value as ItemType))}>
              {ITEM_TYPES.map((t) => <option key={t} value={t}>{t === "object" ? "objects" : t}</option>)}
            </select>
          </label>
        )}
        <label className="inline">
          <input type="checkbox" checked={field.required} onChange={(e) => set({ required: e.target.checked })} /> Required
        </label>
        {field.type !== "custom" && (
          <label className="inline">
            <input type="checkbox" checked={field.nullable} onChange={(e) => set({ nullable: e.target.checked })} /> May be null
          </label>
        )}
        <div className="field-actions">
          <button type="button" className="icon" aria-label={`Move ${label} up`} disabled={first} onClick={() => onChange(moveField(model, field.id, -1))}>↑</button>
          <button type="button" className="icon" aria-label={`Move ${label} down`} disabled={last} onClick={() => onChange(moveField(model, field.id, 1))}>↓</button>
          <button type="button" className="icon danger" aria-label={`Remove ${label}`} onClick={() => onChange(removeField(model, field.id))}>✕</button>
        </div>
      </div>
      {field.type !== "custom" && (
        <div className="field-more">
          <label className="stack grow">
            <span className="small muted">Description</span>
            <input value={field.description} onChange={(e) => set({ description: e.target.value })} placeholder="What the model should put here" />
          </label>
          {scalar && <EnumBox field={field} onChange={(enumValues) => set({ enumValues })} />}
        </div>
      )}
      {mine.map((p) => (
        <p key={p.message} className="error small" role="alert">{p.message}</p>
      ))}
      {(engine.get(path) ?? []).map((p) => (
        <p key={p.message} className={`${p.severity} small`} data-severity={p.severity} data-testid="field-engine-problem">
          {p.message}
        </p>
      ))}
      {container && (
        <div className="field-children">
          <FieldList fields={field.children} prefix={field.type === "array" ? `${path}[]` : path} model={model} problems={problems} engine={engine} onChange={onChange} />
          <button type="button" className="small-button" onClick={() => onChange(addField(model, field.id).model)}>
            Add field to {label}
          </button>
        </div>
      )}
    </fieldset>
  );
}

/** The enum as comma-separated text; kept as typed until it parses to the same values. */
function EnumBox({ field, onChange }: { field: Field; onChange: (values: Field["enumValues"]) => void }) {
  const [text, setText] = useState(enumText(field.enumValues));
  useEffect(() => {
    setText((current) => (enumText(parseEnumText(current, field.type)) === enumText(field.enumValues) ? current : enumText(field.enumValues)));
  }, [field.enumValues, field.type]);
  return (
    <label className="stack grow">
      <span className="small muted">Allowed values</span>
      <input
        value={text}
        placeholder="any (or: a, b, c)"
        onChange={(e) => {
          setText(e.target.value);
          onChange(parseEnumText(e.target.value, field.type));
        }}
      />
    </label>
  );
}
