// Workflow files shared by the tests and the browser harness.

/** The example of docs/WORKFLOWS.md, with comments, a blank line and a second document. */
export const CLASSIFY = `params: CODE=0                 # or a list
env:
  - GREETING: hello            # env
steps:
  # classify the note
  - id: classify               # the id
    action: chat.completion
    with:
      provider: local          # local
      model: smollm2
      prompt: "Classify this note: please refund my 12.50"
    output_schema:             # beside with
      type: object
      properties:
        category: {type: string, enum: [refund, complaint, question]}
        amount: {type: number}
      required: [category]

  - id: record
    depends: classify          # a step id
    run: echo "\${steps.classify.outputs.category}"
    output: LINE               # stdout
---
name: get-weather              # a tool
params: CITY
steps:
  - command: fetch-weather.sh "$CITY"
    output: WEATHER_JSON
`;

/** A diamond: a -> (b, c) -> d, with depends by name and a block list. */
export const DIAMOND = `steps:
  - name: a
    command: echo a
  - name: b
    depends: a
    command: echo b
  - name: c
    depends: [a]
    command: echo c
  - name: d
    depends:
      - b   # first
      - c
    command: echo d
`;
