/** A tracer answer that is already JSON text (the struct logger's and the callTracer's, written as they go). */
export class JsonText {
  constructor(readonly text: string) {}
}
