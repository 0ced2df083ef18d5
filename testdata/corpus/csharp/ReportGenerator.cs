using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Contoso.Reporting;

/// <summary>Output formats supported by <see cref="ReportGenerator"/>.</summary>
[JsonConverter(typeof(JsonStringEnumConverter))]
public enum ReportFormat
{
    Csv,
    Markdown,
    Json,
}

/// <summary>A single measurement in a report.</summary>
public readonly record struct Metric(string Name, double Value, string Unit = "")
{
    public override string ToString() => string.IsNullOrEmpty(Unit)
        ? $"{Name}={Value.ToString(CultureInfo.InvariantCulture)}"
        : $"{Name}={Value.ToString(CultureInfo.InvariantCulture)} {Unit}";
}

public record ReportSection(string Title, IReadOnlyList<Metric> Metrics)
{
    public IReadOnlyList<ReportSection> Children { get; init; } = [];
}

/// <summary>
/// Marks a property of a settings class as configurable from the command line.
/// </summary>
[AttributeUsage(AttributeTargets.Property, AllowMultiple = false, Inherited = true)]
public sealed class OptionAttribute : Attribute
{
    public OptionAttribute(string name) => Name = name;

    public string Name { get; }

    public string? Description { get; init; }
}

public sealed class ReportSettings
{
    [Option("format", Description = "csv, markdown or json")]
    public ReportFormat Format { get; set; } = ReportFormat.Markdown;

    [Option("precision", Description = "digits after the decimal point")]
    public int Precision { get; set; } = 2;

    [Option("culture")]
    public string Culture { get; set; } = "en-US";

    [Option("title")]
    public string? Title { get; set; }

    public CultureInfo CultureInfo => CultureInfo.GetCultureInfo(Culture);
}

/// <summary>
/// Renders report sections as CSV, Markdown or JSON.
/// </summary>
public class ReportGenerator(ReportSettings settings)
{
    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        WriteIndented = true,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull,
    };

    private readonly ReportSettings _settings = settings ?? throw new ArgumentNullException(nameof(settings));

    public ReportSettings Settings => _settings;

    public string Render(IEnumerable<ReportSection> sections) => _settings.Format switch
    {
        ReportFormat.Csv => RenderCsv(sections),
        ReportFormat.Markdown => RenderMarkdown(sections),
        ReportFormat.Json => JsonSerializer.Serialize(sections, JsonOptions),
        _ => throw new ArgumentOutOfRangeException(nameof(sections), _settings.Format, "unknown format"),
    };

    #region CSV

    private string RenderCsv(IEnumerable<ReportSection> sections)
    {
        var sb = new StringBuilder();
        sb.AppendLine("section,metric,value,unit");
        foreach (var (path, section) in Flatten(sections, string.Empty))
        {
            foreach (var metric in section.Metrics)
            {
                sb.Append(Escape(path)).Append(',')
                  .Append(Escape(metric.Name)).Append(',')
                  .Append(Format(metric.Value)).Append(',')
                  .AppendLine(Escape(metric.Unit));
            }
        }

        return sb.ToString();
    }

    private static string Escape(string field)
    {
        if (field.IndexOfAny([',', '"', '\n', '\r']) < 0)
        {
            return field;
        }

        return "\"" + field.Replace("\"", "\"\"") + "\"";
    }

    #endregion

    #region Markdown

    private string RenderMarkdown(IEnumerable<ReportSection> sections)
    {
        var sb = new StringBuilder();
        if (_settings.Title is { Length: > 0 } title)
        {
            sb.Append("# ").AppendLine(title).AppendLine();
        }

        foreach (var section in sections)
        {
            AppendSection(sb, section, level: 2);
        }

        return sb.ToString().TrimEnd() + Environment.NewLine;
    }

    private void AppendSection(StringBuilder sb, ReportSection section, int level)
    {
        sb.Append('#', Math.Min(level, 6)).Append(' ').AppendLine(section.Title).AppendLine();

        if (section.Metrics.Count > 0)
        {
            var nameWidth = Math.Max(6, section.Metrics.Max(m => m.Name.Length));
            sb.Append("| ").Append("Metric".PadRight(nameWidth)).AppendLine(" | Value | Unit |");
            sb.Append("|-").Append(new string('-', nameWidth)).AppendLine("-|------:|------|");
            foreach (var m in section.Metrics.OrderBy(m => m.Name, StringComparer.Ordinal))
            {
                sb.Append("| ").Append(m.Name.PadRight(nameWidth))
                  .Append(" | ").Append(Format(m.Value))
                  .Append(" | ").Append(m.Unit).AppendLine(" |");
            }

            sb.AppendLine();
        }

        foreach (var child in section.Children)
        {
            AppendSection(sb, child, level + 1);
        }
    }

    #endregion

    private string Format(double value) =>
        double.IsNaN(value) ? "n/a" : value.ToString("F" + _settings.Precision, _settings.CultureInfo);

    private static IEnumerable<(string Path, ReportSection Section)> Flatten(IEnumerable<ReportSection> sections, string prefix)
    {
        foreach (var s in sections)
        {
            var path = prefix.Length == 0 ? s.Title : $"{prefix}/{s.Title}";
            yield return (path, s);
            foreach (var nested in Flatten(s.Children, path))
            {
                yield return nested;
            }
        }
    }

    /// <summary>
    /// Summary statistics over every metric with the given name.
    /// </summary>
    public static (double Min, double Max, double Mean, int Count) Summarize(IEnumerable<ReportSection> sections, string metricName)
    {
        var values = Flatten(sections, string.Empty)
            .SelectMany(t => t.Section.Metrics)
            .Where(m => m.Name == metricName && !double.IsNaN(m.Value))
            .Select(m => m.Value)
            .ToArray();

        return values.Length == 0
            ? (double.NaN, double.NaN, double.NaN, 0)
            : (values.Min(), values.Max(), values.Average(), values.Length);
    }
}

internal static class Program
{
    private static int Main(string[] args)
    {
        var settings = new ReportSettings();
        foreach (var arg in args)
        {
            var parts = arg.TrimStart('-').Split('=', 2);
            var property = typeof(ReportSettings).GetProperties()
                .FirstOrDefault(p => p.GetCustomAttributes(typeof(OptionAttribute), true)
                    .OfType<OptionAttribute>()
                    .Any(o => o.Name == parts[0]));
            if (property is null || parts.Length != 2)
            {
                Console.Error.WriteLine($"unknown option: {arg}");
                return 2;
            }

            object value = property.PropertyType.IsEnum
                ? Enum.Parse(property.PropertyType, parts[1], ignoreCase: true)
                : Convert.ChangeType(parts[1], Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType, CultureInfo.InvariantCulture);
            property.SetValue(settings, value);
        }

        var sections = new[]
        {
            new ReportSection("Build", [new Metric("duration", 83.4, "s"), new Metric("warnings", 3)])
            {
                Children = [new ReportSection("Tests", [new Metric("passed", 1204), new Metric("failed", 0)])],
            },
            new ReportSection("Size", [new Metric("binary", 12.7, "MB")]),
        };

        Console.Write(new ReportGenerator(settings).Render(sections));
        return 0;
    }
}
