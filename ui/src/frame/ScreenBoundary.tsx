import { Component, type ErrorInfo, type ReactNode } from "react";

interface Props {
  name: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/** A screen that throws shows why, and the rest of the window keeps working. */
export class ScreenBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(`the ${this.props.name} screen failed`, error, info.componentStack);
  }

  render() {
    if (this.state.error === null) return this.props.children;
    return (
      <section className="screen" role="alert" data-testid="screen-error">
        <h1>{this.props.name}</h1>
        <p className="error">This screen stopped: {this.state.error.message}</p>
        <div className="row">
          <button type="button" onClick={() => this.setState({ error: null })}>Try again</button>
        </div>
      </section>
    );
  }
}
