import { useId } from "react";
import type { Field, SchemaModel } from "../schema/model";

/** The schema as a form: what a document's values will look like to fill in. */
export function FormPreview({ model }: { model: SchemaModel }) {
  return (
    <form className="form-preview" aria-label="Form preview" onSubmit={(e) => e.preventDefault()} data-testid="form-preview">
      {model.fields.map((f) => <PreviewField key={f.id} field={f} />)}
    </form>
  );
}

function PreviewField({ field }: { field: Field }) {
  const id = useId();
  const label = `${field.name}${field.required ? " *" : ""}`;
  if (field.type === "object" || (field.type === "array" && field.itemType === "object")) {
    return (
      <fieldset className="preview-group">
        <legend>{field.type === "array" ? `${label} (list)` : label}</legend>
        {field.description && <p className="muted small">{field.description}</p>}
        {field.children.map((c) => <PreviewField key={c.id} field={c} />)}
      </fieldset>
    );
  }
  let control;
  if (field.enumValues.length > 0) {
    control = (
      <select id={id} defaultValue="">
        <option value="">—</option>
        {field.enumValues.map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
      </select>
    );
  } else if (field.type === "boolean") {
    control = <input id={id} type="checkbox" />;
  } else if (field.type === "number" || field.type === "integer") {
    control = <input id={id} type="number" step={field.type === "integer" ? 1 : "any"} />;
  } else if (field.type === "array") {
    control = <input id={id} placeholder={`${field.itemType}, ${field.itemType}, …`} />;
  } else if (field.type === "custom") {
    control = <textarea id={id} rows={2} placeholder="JSON" />;
  } else {
    control = <input id={id} type={field.extra.format === "date" ? "date" : "text"} />;
  }
  return (
    <div className="preview-field">
      <label htmlFor={id}>{label}</label>
      {control}
      {field.description && <span className="muted small">{field.description}</span>}
    </div>
  );
}
