/**
 * Keeps the k smallest candidates under a total order, so examples are the same whatever
 * order the candidates arrive in. Candidates are ids with two numbers of context.
 */
export class TopK {
  readonly ids: number[] = [];
  readonly c1: number[] = [];
  readonly c2: number[] = [];

  constructor(
    private readonly k: number,
    private readonly cmp: (a: number, b: number) => number,
  ) {}

  offer(id: number, c1 = -1, c2 = -1): void {
    const n = this.ids.length;
    if (this.k === 0) return;
    if (n === this.k) {
      if (this.cmp(id, this.ids[n - 1]) >= 0) return;
      this.ids.pop();
      this.c1.pop();
      this.c2.pop();
    }
    let i = this.ids.length;
    while (i > 0 && this.cmp(id, this.ids[i - 1]) < 0) i--;
    this.ids.splice(i, 0, id);
    this.c1.splice(i, 0, c1);
    this.c2.splice(i, 0, c2);
  }
}
