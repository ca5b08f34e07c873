package dev.studio.duty;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The duties this replica runs for each cluster it owns: the names listed in {@code studio.duties},
 * each found among the {@link ClusterDuty} implementations registered through {@code ServiceLoader}
 * or, failing that, as a class name with a public no-argument constructor.
 */
public final class DutyRegistry {
  private final List<ClusterDuty> enabled;

  private DutyRegistry(List<ClusterDuty> enabled) {
    this.enabled = List.copyOf(enabled);
  }

  public static DutyRegistry load(List<String> names, ClassLoader loader) {
    Map<String, ClusterDuty> known = new LinkedHashMap<>();
    for (ClusterDuty d : ServiceLoader.load(ClusterDuty.class, loader)) known.put(d.name(), d);
    List<ClusterDuty> out = new ArrayList<>();
    for (String name : names) {
      ClusterDuty d = known.get(name);
      if (d == null) d = byClassName(name, loader);
      out.add(d);
    }
    return new DutyRegistry(out);
  }

  public static DutyRegistry of(List<ClusterDuty> duties) {
    return new DutyRegistry(duties);
  }

  private static ClusterDuty byClassName(String name, ClassLoader loader) {
    try {
      Class<?> c = Class.forName(name, true, loader);
      return (ClusterDuty) c.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalArgumentException("studio.duties: '" + name + "' is neither a registered duty name nor a "
          + "ClusterDuty class with a public no-argument constructor", e);
    }
  }

  /** In safe mode (crash-loop guard tripped) only built-in duties run. */
  public List<ClusterDuty> forMode(boolean safeMode) {
    return safeMode ? enabled.stream().filter(ClusterDuty::builtIn).toList() : enabled;
  }

  public List<String> names() {
    return enabled.stream().map(ClusterDuty::name).toList();
  }
}
