{{/* Labels of every object of the chart. */}}
{{- define "conductor.labels" -}}
app.kubernetes.io/name: conductor
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: controllers
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The selector of the controllers' pods. */}}
{{- define "conductor.selector" -}}
app.kubernetes.io/name: conductor
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controllers
{{- end -}}

{{/* Conductor's namespace: its classes, Providers and the controllers' Lease live there. */}}
{{- define "conductor.namespace" -}}conductor-system{{- end -}}

{{/* The name of the ClusterRole, Role and bindings. */}}
{{- define "conductor.roleName" -}}conductor-controllers{{- end -}}
