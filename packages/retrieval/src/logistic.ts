/**
 * Binary logistic regression over sparse feature vectors: the small learner
 * behind the tool-need model (tool-need.ts). Training is plain stochastic
 * gradient descent with AdaGrad step sizes and L2 shrinkage, over the
 * examples in a seeded order, so the same examples and options always give
 * the same weights; a few thousand examples train in well under a second.
 */
import { mulberry32, shuffleInPlace } from "./seeded-random.js";

/** A sparse feature vector: parallel lists of feature indices and their values. */
export interface SparseVector {
  indices: ArrayLike<number>;
  values: ArrayLike<number>;
}

export interface LogisticExample {
  x: SparseVector;
  /** 1 for the positive class. */
  y: 0 | 1;
}

export interface LogisticWeights {
  bias: number;
  /** Weight by feature index. */
  weights: Float64Array;
}

export interface LogisticOptions {
  /** Passes over the examples. @default 30 */
  epochs?: number;
  /** AdaGrad's base step. @default 0.2 */
  learningRate?: number;
  /** L2 penalty, applied to the weights a step touches. @default 1e-4 */
  l2?: number;
  /**
   * Weight of each class in the loss, so that the rarer class is not ignored:
   * "balanced" weighs each class by n / (2 · its count). @default "balanced"
   */
  classWeight?: "balanced" | "none";
  /** Seed of the example order. @default 1 */
  seed?: number;
}

/**
 * Trains a model over feature indices below `dimension`; see the module
 * comment. An empty example list gives the zero model.
 */
export function trainLogistic(examples: readonly LogisticExample[], dimension: number, options: LogisticOptions = {}): LogisticWeights {
  const epochs = options.epochs ?? 30;
  const rate = options.learningRate ?? 0.2;
  const l2 = options.l2 ?? 1e-4;
  const positives = examples.filter((e) => e.y === 1).length;
  const negatives = examples.length - positives;
  const balanced = (options.classWeight ?? "balanced") === "balanced" && positives > 0 && negatives > 0;
  const classWeight = [balanced ? examples.length / (2 * negatives) : 1, balanced ? examples.length / (2 * positives) : 1];

  const weights = new Float64Array(dimension);
  const squares = new Float64Array(dimension);
  let bias = 0;
  let biasSquares = 0;
  const random = mulberry32(options.seed ?? 1);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch++) {
    shuffleInPlace(order, random);
    for (const i of order) {
      const { x, y } = examples[i]!;
      const g = (sigmoid(bias + dotSparse(weights, x)) - y) * classWeight[y]!;
      biasSquares += g * g;
      bias -= (rate * g) / Math.sqrt(biasSquares + 1e-8);
      for (let j = 0; j < x.indices.length; j++) {
        const f = x.indices[j]!;
        const gradient = g * x.values[j]! + l2 * weights[f]!;
        squares[f]! += gradient * gradient;
        weights[f]! -= (rate * gradient) / Math.sqrt(squares[f]! + 1e-8);
      }
    }
  }
  return { bias, weights };
}

/** Σ weights[i] · x[i]. */
export function dotSparse(weights: ArrayLike<number>, x: SparseVector): number {
  let z = 0;
  for (let j = 0; j < x.indices.length; j++) z += (weights[x.indices[j]!] ?? 0) * x.values[j]!;
  return z;
}

export function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}
