/** Polls a list kept by a local fake until an element matches, or fails with `what`. */
export async function waitForItem<T>(items: T[], pred: (item: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = items.find(pred);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(what());
}
