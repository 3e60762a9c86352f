/**
 * Plugins by name. A SchedulerProfile names filters and score plugins; the registry turns
 * the names into instances. `defaultRegistry()` holds the built-ins; register more (or
 * replace one) before building a Scheduler.
 */
import type { FilterPlugin, FilterPluginClass, PluginContext, ScorePlugin, ScorePluginClass } from './plugin.js';
import {
  BinPackScore,
  CapacityFilter,
  CostFilter,
  ExplicitNameFilter,
  KindCompatibleFilter,
  LeastWasteScore,
  LocalityScore,
  LowestCostScore,
  NamespacePolicyFilter,
  PerformanceFilter,
  PhaseFilter,
  PortableConfigFilter,
  ProfileMatchFilter,
  QuotaFilter,
  RegionFilter,
  SelectorFilter,
  SpreadScore,
  StaticFirstScore,
} from './plugins/index.js';

/** A PluginRegistry maps plugin names to classes. */
export class PluginRegistry {
  private readonly filters = new Map<string, FilterPluginClass>();
  private readonly scores = new Map<string, ScorePluginClass>();

  /** registerFilter adds (or replaces) a filter under its class's pluginName. */
  registerFilter(plugin: FilterPluginClass): this {
    this.filters.set(plugin.pluginName, plugin);
    return this;
  }

  /** registerScore adds (or replaces) a score plugin under its class's pluginName. */
  registerScore(plugin: ScorePluginClass): this {
    this.scores.set(plugin.pluginName, plugin);
    return this;
  }

  filterNames(): string[] {
    return [...this.filters.keys()];
  }

  scoreNames(): string[] {
    return [...this.scores.keys()];
  }

  /** newFilter builds a filter; it throws naming the known filters when the name is unknown. */
  newFilter(name: string, ctx: PluginContext): FilterPlugin {
    const cls = this.filters.get(name);
    if (cls === undefined) throw new Error(`unknown filter plugin ${JSON.stringify(name)}: expected one of ${this.filterNames().join(', ')}`);
    return new cls(ctx);
  }

  /** newScore builds a score plugin; it throws naming the known ones when the name is unknown. */
  newScore(name: string, ctx: PluginContext): ScorePlugin {
    const cls = this.scores.get(name);
    if (cls === undefined) throw new Error(`unknown score plugin ${JSON.stringify(name)}: expected one of ${this.scoreNames().join(', ')}`);
    return new cls(ctx);
  }

  /** A copy to add to without changing this one. */
  clone(): PluginRegistry {
    const r = new PluginRegistry();
    for (const cls of this.filters.values()) r.registerFilter(cls);
    for (const cls of this.scores.values()) r.registerScore(cls);
    return r;
  }
}

/** defaultRegistry returns a new registry holding every built-in plugin. */
export function defaultRegistry(): PluginRegistry {
  const r = new PluginRegistry();
  for (const f of [
    KindCompatibleFilter,
    ExplicitNameFilter,
    ProfileMatchFilter,
    PhaseFilter,
    RegionFilter,
    SelectorFilter,
    CapacityFilter,
    CostFilter,
    PerformanceFilter,
    PortableConfigFilter,
    NamespacePolicyFilter,
    QuotaFilter,
  ]) {
    r.registerFilter(f);
  }
  for (const s of [StaticFirstScore, LeastWasteScore, LowestCostScore, LocalityScore, SpreadScore, BinPackScore]) r.registerScore(s);
  return r;
}
